from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_stake_block'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='browser_id',
            field=models.CharField(blank=True, max_length=32, verbose_name='browser id'),
        ),
        migrations.AddField(
            model_name='seat',
            name='client_address',
            field=models.GenericIPAddressField(blank=True, null=True, verbose_name='client address'),
        ),
        migrations.AddField(
            model_name='seat',
            name='user_agent_hash',
            field=models.CharField(blank=True, max_length=16, verbose_name='user agent hash'),
        ),
    ]
