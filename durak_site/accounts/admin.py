from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from durak_site.accounts.models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")
    search_fields = ("username", "email")
    ordering = ("-date_joined",)
